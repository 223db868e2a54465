int a[];
