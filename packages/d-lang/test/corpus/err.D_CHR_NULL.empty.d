BEGIN { trace(''); }
