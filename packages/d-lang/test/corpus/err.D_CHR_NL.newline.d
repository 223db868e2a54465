BEGIN { trace('
'); }
