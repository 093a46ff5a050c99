package gifting

import (
	"testing"
	"time"
)

func TestPatchesValidateAndLeaveUnchangedOnError(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	then := now.Add(-time.Hour)
	str := func(s string) *string { return &s }
	price := func(p float64) *float64 { return &p }
	gift := Gift{Name: "Mug", Price: 10, Currency: "USD", Status: GiftAvailable, Inventory: Inventory{Total: 5, Available: 5}, UpdatedAt: then}
	for _, tt := range []struct {
		name  string
		patch GiftPatch
		field string // "" = valid
	}{
		{"price changes", GiftPatch{Price: price(12.5)}, ""},
		{"price below zero", GiftPatch{Price: price(-0.01)}, "price"},
		{"price above the bound", GiftPatch{Price: price(MaxGiftPrice + 1)}, "price"},
		{"blank name", GiftPatch{Name: str("  ")}, "name"},
		{"bad currency", GiftPatch{Currency: str("usd")}, "currency"},
		{"inventory over total", GiftPatch{Inventory: &Inventory{Total: 1, Available: 2}}, "inventory"},
	} {
		t.Run("gift/"+tt.name, func(t *testing.T) {
			g := gift
			err := tt.patch.Apply(&g, now)
			checkPatch(t, err, tt.field)
			if tt.field != "" && (g.Price != gift.Price || g.Name != gift.Name || !g.UpdatedAt.Equal(then)) {
				t.Errorf("a refused patch changed the gift: %+v", g)
			}
			if tt.field == "" && (g.Price != 12.5 || g.Name != "Mug" || !g.UpdatedAt.Equal(now)) {
				t.Errorf("after patch = %+v; want price 12.5, name kept, updatedAt now", g)
			}
		})
	}
	tmpl := Template{TemplateName: "T", TemplateCategory: "c", Tags: []string{"a"}, UpdatedAt: then}
	for _, tt := range []struct {
		name  string
		patch TemplatePatch
		field string
	}{
		{"name changes", TemplatePatch{TemplateName: str("T2")}, ""},
		{"blank name", TemplatePatch{TemplateName: str("")}, "templateName"},
		{"success rate over 100", TemplatePatch{SuccessRate: price(100.5)}, "successRate"},
		{"bad logo colour", TemplatePatch{TemplateData: &TemplateData{Goal: Goal{LogoColor: "red"}}}, "templateData.goal.logoColor"},
	} {
		t.Run("template/"+tt.name, func(t *testing.T) {
			m := tmpl
			checkPatch(t, tt.patch.Apply(&m, now), tt.field)
			if tt.field != "" && (m.TemplateName != "T" || !m.UpdatedAt.Equal(then)) {
				t.Errorf("a refused patch changed the template: %+v", m)
			}
			if tt.field == "" && (m.TemplateName != "T2" || m.TemplateCategory != "c" || !m.UpdatedAt.Equal(now)) {
				t.Errorf("after patch = %+v", m)
			}
		})
	}
	for _, tt := range []struct {
		name  string
		patch ContactListPatch
		field string
	}{
		{"description changes", ContactListPatch{Description: str("new")}, ""},
		{"blank name", ContactListPatch{Name: str(" ")}, "name"},
	} {
		t.Run("list/"+tt.name, func(t *testing.T) {
			l := ContactList{Name: "L", Description: "old", UpdatedAt: then}
			checkPatch(t, tt.patch.Apply(&l, now), tt.field)
			if tt.field == "" && (l.Name != "L" || l.Description != "new" || !l.UpdatedAt.Equal(now)) {
				t.Errorf("after patch = %+v", l)
			}
			if tt.field != "" && (l.Name != "L" || !l.UpdatedAt.Equal(then)) {
				t.Errorf("a refused patch changed the list: %+v", l)
			}
		})
	}
}

// checkPatch checks that err names field, or is nil when field is "".
func checkPatch(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("Apply = %v, want nil", err)
		}
		return
	}
	e, ok := err.(*Error)
	if !ok || e.Code != CodeValidation || e.Details[field] == "" {
		t.Fatalf("Apply = %v; want VALIDATION_FAILED naming %s", err, field)
	}
}
