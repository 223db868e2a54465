/* nothing */
// here

