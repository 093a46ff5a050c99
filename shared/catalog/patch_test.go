package catalog_test

import (
	"errors"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// wantField checks that err is a VALIDATION_FAILED naming field, or nil
// when field is "".
func wantField(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	var e *gifting.Error
	if !errors.As(err, &e) || e.Code != gifting.CodeValidation || e.Details[field] == "" {
		t.Fatalf("err = %v; want VALIDATION_FAILED naming %s", err, field)
	}
}

func ptr[T any](v T) *T { return &v }

// TestPatchesValidateAndLeaveUnchangedOnError: a patch is checked as a
// new gift or template is; a refused one leaves it as it was, an accepted
// one applies what it sends and moves updatedAt.
func TestPatchesValidateAndLeaveUnchangedOnError(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	then := now.Add(-time.Hour)
	gift := catalog.Gift{Name: "Mug", Price: 10, Currency: "USD", Status: catalog.GiftAvailable,
		Inventory: catalog.Inventory{Total: 5, Available: 5}, UpdatedAt: then}
	for _, tt := range []struct {
		name  string
		patch catalog.GiftPatch
		field string // "" = valid
	}{
		{"price changes", catalog.GiftPatch{Price: ptr(12.5)}, ""},
		{"price below zero", catalog.GiftPatch{Price: ptr(-0.01)}, "price"},
		{"price above the bound", catalog.GiftPatch{Price: ptr(float64(gifting.MaxGiftPrice + 1))}, "price"},
		{"blank name", catalog.GiftPatch{Name: ptr("  ")}, "name"},
		{"bad currency", catalog.GiftPatch{Currency: ptr("usd")}, "currency"},
		{"inventory over total", catalog.GiftPatch{Inventory: &catalog.Inventory{Total: 1, Available: 2}}, "inventory"},
	} {
		t.Run("gift/"+tt.name, func(t *testing.T) {
			g := gift
			err := tt.patch.Apply(&g, now)
			wantField(t, err, tt.field)
			if tt.field != "" && (g.Price != gift.Price || g.Name != gift.Name || !g.UpdatedAt.Equal(then)) {
				t.Errorf("a refused patch changed the gift: %+v", g)
			}
			if tt.field == "" && (g.Price != 12.5 || g.Name != "Mug" || !g.UpdatedAt.Equal(now)) {
				t.Errorf("after patch = %+v; want price 12.5, name kept, updatedAt now", g)
			}
		})
	}
	tmpl := catalog.Template{TemplateName: "T", TemplateCategory: "c", Tags: []string{"a"}, UpdatedAt: then}
	for _, tt := range []struct {
		name  string
		patch catalog.TemplatePatch
		field string
	}{
		{"name changes", catalog.TemplatePatch{TemplateName: ptr("T2")}, ""},
		{"blank name", catalog.TemplatePatch{TemplateName: ptr("")}, "templateName"},
		{"success rate over 100", catalog.TemplatePatch{SuccessRate: ptr(100.5)}, "successRate"},
		{"bad logo colour", catalog.TemplatePatch{TemplateData: &catalog.TemplateData{Goal: catalog.Goal{LogoColor: "red"}}}, "templateData.goal.logoColor"},
	} {
		t.Run("template/"+tt.name, func(t *testing.T) {
			m := tmpl
			wantField(t, tt.patch.Apply(&m, now), tt.field)
			if tt.field != "" && (m.TemplateName != "T" || !m.UpdatedAt.Equal(then)) {
				t.Errorf("a refused patch changed the template: %+v", m)
			}
			if tt.field == "" && (m.TemplateName != "T2" || m.TemplateCategory != "c" || !m.UpdatedAt.Equal(now)) {
				t.Errorf("after patch = %+v", m)
			}
		})
	}
	t.Run("template/a look stored before it was checked stays until templateData is patched", func(t *testing.T) {
		m := tmpl
		m.TemplateData.Goal = catalog.Goal{Logo: "http://img.example.com/logo.png", LogoColor: "#3b82f6"}
		if err := (catalog.TemplatePatch{TemplateName: ptr("T2")}).Apply(&m, now); err != nil {
			t.Fatalf("a rename of a template with an old look: %v", err)
		}
		if m.TemplateName != "T2" || m.TemplateData.Goal.LogoColor != "#3b82f6" || m.TemplateData.Goal.Logo != "http://img.example.com/logo.png" {
			t.Errorf("after the rename %+v; want the name changed and the look kept", m)
		}
		wantField(t, (catalog.TemplatePatch{TemplateData: &m.TemplateData}).Apply(&m, now), "templateData.goal.logoColor")
	})
	t.Run("gift/a sent list replaces the stored one, a list not sent stays", func(t *testing.T) {
		g := gift
		g.CollectionIDs = []string{"swag"}
		if err := (catalog.GiftPatch{ImageURLs: []string{"https://img.example.com/m.png"}}).Apply(&g, now); err != nil {
			t.Fatal(err)
		}
		if len(g.ImageURLs) != 1 || len(g.CollectionIDs) != 1 || g.CollectionIDs[0] != "swag" {
			t.Errorf("images %v collections %v; want the sent image, swag kept", g.ImageURLs, g.CollectionIDs)
		}
	})
}
