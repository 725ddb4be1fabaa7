// Placeholder: the `onepass` command-line tool is being written (issue 2).
int main() { return 1; }
