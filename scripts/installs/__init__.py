"""What each install command the site and the doctor print installs: the commands collected,
their purposes, pip's resolver run for each target platform, and the committed record."""
