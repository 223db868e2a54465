/* @cpp */
#include "nosuch.h"
BEGIN {}
