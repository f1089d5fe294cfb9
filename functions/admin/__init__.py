"""The control panel (interface `admin`): one module per page or form, as the other interfaces."""
