/* Decode corpus: structs, pointers, switch, recursion, function pointers. */
struct node { struct node *left, *right; int key; unsigned char colour; short weight; };
struct node *insert(struct node *root, struct node *n) {
  if (!root) return n;
  if (n->key < root->key) root->left = insert(root->left, n); else root->right = insert(root->right, n);
  root->weight++;
  return root;
}
int depth(const struct node *n) { if (!n) return 0; int l = depth(n->left), r = depth(n->right); return 1 + (l > r ? l : r); }
int classify(int c) {
  switch (c) { case 0: return 10; case 1: return 7; case 2: return 99; case 3: return -4; case 4: return 12; case 5: return 1; case 6: return 3; default: return c * 3; }
}
typedef int (*op_fn)(int, int);
static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
int apply(int which, int a, int b) { static const op_fn ops[] = { add, sub, mul }; return ops[which % 3](a, b); }
void sort(int *v, int n) { for (int i = 1; i < n; i++) { int x = v[i], j = i - 1; while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; } v[j + 1] = x; } }
long long sum_struct(const struct node *arr, int n) { long long s = 0; for (int i = 0; i < n; i++) s += arr[i].key * arr[i].weight + arr[i].colour; return s; }
int atomic_inc(int *p) { return __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST); }
int cas(int *p, int o, int n) { return __atomic_compare_exchange_n(p, &o, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
