#define GREETING "hi"
