"""Resource abuse: importing the module never finishes."""

while True:
    pass
