package gifting

// CodeGone is the error code of a page whose campaign is over: completed
// (and the recipient had not confirmed an address) or deleted. Only the
// recipient pages answer it (410).
const CodeGone Code = "GONE"

// InStock reports whether at least one unit of g can be reserved.
func (g Gift) InStock() bool { return g.Inventory.Available > 0 }
