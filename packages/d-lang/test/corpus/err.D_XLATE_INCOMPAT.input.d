/* Member expressions are typed against the input type when the translator is declared. */
typedef struct out { int which; string name; } out_t;
translator out_t < int x > { name = x; };
