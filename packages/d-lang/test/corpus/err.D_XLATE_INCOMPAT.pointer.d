/* An integer member may not be given a pointer (dt_node_is_argcompat). */
typedef struct out { int which; } out_t;
translator out_t < int *p > { which = p; };
