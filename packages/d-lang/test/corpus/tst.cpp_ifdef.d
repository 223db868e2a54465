/* @cpp */
#ifdef UNDEFINED_THING
this is not D
#endif
#ifndef X
#define X 1
#endif
BEGIN { trace(X); }
