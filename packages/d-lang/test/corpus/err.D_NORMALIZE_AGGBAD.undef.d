BEGIN { normalize(@nope, 2); }
