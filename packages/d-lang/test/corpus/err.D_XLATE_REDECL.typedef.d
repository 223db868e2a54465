/* int and a typedef of int are compatible input types: the same translator twice. */
typedef struct out { int which; } out_t;
typedef int myint_t;
translator out_t < int x > { which = x; };
translator out_t < myint_t y > { which = y; };
