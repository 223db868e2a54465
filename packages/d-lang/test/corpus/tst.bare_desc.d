BEGIN
{
}
END
{
}
