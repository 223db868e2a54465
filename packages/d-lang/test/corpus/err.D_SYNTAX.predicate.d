BEGIN / { }
