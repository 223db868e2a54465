/* A translation to a type that is not a struct or union finds no translator. */
typedef struct out { int which; } out_t;
translator out_t < int x > { which = x; };
BEGIN { this->x = xlate <int> (1); }
