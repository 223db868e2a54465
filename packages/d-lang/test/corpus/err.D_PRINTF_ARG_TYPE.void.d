/* printf() as printf's argument is void, which %d does not take. */
BEGIN { printf("%d", printf("")); }
