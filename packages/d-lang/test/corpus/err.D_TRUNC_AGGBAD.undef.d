BEGIN { trunc(@nope); }
