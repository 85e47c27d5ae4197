// Opens readers from connection strings: filled in by issue 3 (scan) and issue 5 (sessions).
