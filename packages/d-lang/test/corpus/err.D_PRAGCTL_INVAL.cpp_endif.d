/* @cpp */
#endif
BEGIN {}
