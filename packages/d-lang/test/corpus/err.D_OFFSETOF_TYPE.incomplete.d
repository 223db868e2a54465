/* offsetof of a struct only declared forward: not a complete struct type. */
struct later;
BEGIN { x = offsetof(struct later, a); }
