// The Timing module; see DESIGN.md.
