BEGIN { x = strlen; }
