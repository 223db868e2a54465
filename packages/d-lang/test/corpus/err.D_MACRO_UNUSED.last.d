/* @args 1 2 */
BEGIN { trace($1); }
