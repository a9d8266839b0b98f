int placeholder_demo;
