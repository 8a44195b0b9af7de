"""Model access: the Model protocol and the litellm adapter, its errors and lazy loading."""
