"""What people read: platform-neutral messages and the UI strings in English and Bengali."""
