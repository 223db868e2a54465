/* Decode corpus: string and memory routines. */
typedef unsigned long size_t;
size_t my_strlen(const char *s) { const char *p = s; while (*p) p++; return (size_t)(p - s); }
int my_strcmp(const char *a, const char *b) { while (*a && *a == *b) { a++; b++; } return (unsigned char)*a - (unsigned char)*b; }
void *my_memcpy(void *d, const void *s, size_t n) { char *dp = d; const char *sp = s; while (n--) *dp++ = *sp++; return d; }
void *my_memset(void *d, int c, size_t n) { unsigned char *p = d; while (n--) *p++ = (unsigned char)c; return d; }
char *my_strchr(const char *s, int c) { for (; *s; s++) if (*s == (char)c) return (char *)s; return c ? 0 : (char *)s; }
int my_atoi(const char *s) { int sign = 1, v = 0; while (*s == ' ') s++; if (*s == '-') { sign = -1; s++; } while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0'); return v * sign; }
int format_uint(char *out, unsigned long long v, int base) {
  char tmp[32]; int n = 0, i = 0;
  do { unsigned d = (unsigned)(v % base); tmp[n++] = d < 10 ? '0' + d : 'a' + d - 10; v /= base; } while (v);
  while (n) out[i++] = tmp[--n];
  out[i] = 0; return i;
}
unsigned hash_string(const char *s) { unsigned h = 2166136261u; while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; } return h; }
