"""`spot-training <verb> <stack>`: the day-two command line around `pulumi up`."""
