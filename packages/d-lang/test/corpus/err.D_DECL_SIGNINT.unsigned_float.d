unsigned float x;
