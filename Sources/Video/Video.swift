// The Video module; see DESIGN.md.
