/* @cpp */
#frobnicate
BEGIN {}
