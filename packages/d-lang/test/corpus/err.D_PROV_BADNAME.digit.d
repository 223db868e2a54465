provider foo1 { probe x(); };
