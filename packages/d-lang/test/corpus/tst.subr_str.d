BEGIN {
	trace(strlen("abc")); trace(strjoin("a", "b")); trace(substr("hello", 1)); trace(substr("hello", 1, 2));
	trace(index("hello", "l")); trace(rindex("hello", "l", 4)); trace(strchr("abc", 'b')); trace(strrchr("abc", 'b'));
	trace(strstr("abc", "bc")); trace(strtok("a,b", ",")); trace(basename("/a/b")); trace(dirname("/a/b"));
	trace(cleanpath("/a/../b")); trace(lltostr(123)); trace(lltostr(123, 16)); trace(toupper("a")); trace(tolower("A"));
	trace(strtoll("123")); trace(strtoll("ff", 16)); trace(json("{}", "a"));
}
