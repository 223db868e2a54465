typedef struct point { int x; int y; } point_t;
struct list { struct list *next; int v; };
union u { int i; char c[4]; };
enum color { RED, GREEN = 5, BLUE };
BEGIN { this->p = (point_t *)arg0; trace(this->p->x); trace(((struct list *)arg0)->next->v); trace(BLUE); trace(((union u *)arg0)->c[1]); }
