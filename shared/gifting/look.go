package gifting

// TemplateLook is the logo and colour a template's goal sets for the
// campaigns made from it (templateData.goal.logo, logoColor), as a
// campaign keeps a copy of it: "" where the template sets none. The look
// of a page or email resolves it over the organization's branding
// (branding.Resolve), which checks it again.
type TemplateLook struct {
	Logo  string `json:"logo,omitempty"`
	Color string `json:"color,omitempty"`
}
