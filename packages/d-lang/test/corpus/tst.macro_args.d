BEGIN { trace($1); trace($$2); trace($pid); trace($target); } pid$target:::entry { }
