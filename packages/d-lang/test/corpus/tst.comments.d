/* block
 comment */ BEGIN // line comment
{ /* inline */ trace(1); // end
}
