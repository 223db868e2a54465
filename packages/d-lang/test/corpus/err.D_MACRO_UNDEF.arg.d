BEGIN { trace($3); }
