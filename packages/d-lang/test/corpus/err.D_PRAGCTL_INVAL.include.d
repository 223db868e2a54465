#include <stdio.h>
BEGIN {}
