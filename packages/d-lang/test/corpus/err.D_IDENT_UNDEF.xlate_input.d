/* Member expressions see the input parameter, not names from elsewhere. */
typedef struct out { int which; } out_t;
translator out_t < int x > { which = y; };
