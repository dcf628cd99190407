// The Effects module; see DESIGN.md.
