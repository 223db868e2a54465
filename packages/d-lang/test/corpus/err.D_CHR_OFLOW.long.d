BEGIN { trace('abcdefghij'); }
