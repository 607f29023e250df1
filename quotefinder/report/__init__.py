"""What people read: the CSV tables, the Markdown summary, the plots, the report directory, and what
the two commands print in the terminal. Lays results out; computes nothing."""
