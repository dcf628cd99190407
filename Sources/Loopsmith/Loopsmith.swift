// The Loopsmith module; see DESIGN.md.
