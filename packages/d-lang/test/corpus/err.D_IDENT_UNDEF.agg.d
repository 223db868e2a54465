BEGIN { x = @nope + 1; }
