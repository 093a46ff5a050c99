package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/gifting"
)

// The audience slice's storage of personas: load and commit
// (shared/audience decides). The items keep the attribute names they had
// when the API's type was stored as it was (docs/data-model.md); the tags
// name attributes, as the store's marshal reads them.

// The store implements the audience slice's port.
var _ audience.Store = (*Store)(nil)

// personaItem is an ICP persona (ICP#<id> under the organization, listed
// in the Slim index and counted).
type personaItem struct {
	ICPID          string          `json:"icpId"`
	OrganizationID string          `json:"organizationId"`
	CreatedBy      string          `json:"createdBy"`
	Persona        criteriaItem    `json:"persona"`
	Company        map[string]any  `json:"company"`
	Status         string          `json:"status"`
	CreatedAt      time.Time       `json:"createdAt"`
	UpdatedAt      time.Time       `json:"updatedAt"`
	Metadata       personaMetaItem `json:"metadata"`
}

// criteriaItem is a persona's persona object: the original interface's
// snake_case names.
type criteriaItem struct {
	Name             string         `json:"name"`
	Description      string         `json:"description"`
	JobTitles        []string       `json:"job_titles"`
	Departments      []string       `json:"departments"`
	SeniorityLevels  []string       `json:"seniority_levels"`
	ContactLocations []locationItem `json:"contact_locations"`
}

type locationItem struct {
	Country string `json:"country"`
	Region  string `json:"region"`
}

type personaMetaItem struct {
	Tags     []string `json:"tags"`
	Priority string   `json:"priority"`
}

func personaItemOf(p audience.Persona) personaItem {
	c := p.Criteria
	return personaItem{
		ICPID: p.ID, OrganizationID: p.OrganizationID, CreatedBy: p.CreatedBy,
		Persona: criteriaItem{Name: c.Name, Description: c.Description, JobTitles: c.JobTitles, Departments: c.Departments,
			SeniorityLevels: c.SeniorityLevels, ContactLocations: convertAll(c.Locations, func(l audience.Location) locationItem { return locationItem(l) })},
		Company: p.Company, Status: p.Status, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		Metadata: personaMetaItem(p.Meta),
	}
}

func (it personaItem) persona() audience.Persona {
	c := it.Persona
	return audience.Persona{
		ID: it.ICPID, OrganizationID: it.OrganizationID, CreatedBy: it.CreatedBy,
		Criteria: audience.Criteria{Name: c.Name, Description: c.Description, JobTitles: c.JobTitles, Departments: c.Departments,
			SeniorityLevels: c.SeniorityLevels, Locations: convertAll(c.ContactLocations, func(l locationItem) audience.Location { return audience.Location(l) })},
		Company: it.Company, Status: it.Status, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
		Meta: audience.PersonaMeta(it.Metadata),
	}
}

// decodePersonas maps stored items to personas.
func decodePersonas(items []item) ([]audience.Persona, error) {
	its, err := decodeAll[personaItem](items)
	return convertAll(its, personaItem.persona), err
}

// Persona reads persona id of org, or audience.ErrNotFound.
func (s *Store) Persona(ctx context.Context, orgID, id string) (audience.Persona, error) {
	var it personaItem
	found, err := s.get(ctx, orgPK(orgID), icpSK(id), &it)
	if err == nil && !found {
		err = audience.ErrNotFound
	}
	return it.persona(), err
}

// PersonaPage reads a page of org's personas in creation order, and their
// number: the counter and the Slim index, O(page) (orderedPage).
func (s *Store) PersonaPage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]audience.Persona, int, error) {
	items, total, err := s.orderedPage(ctx, orgID, personasOf(orgID), order, page)
	if err != nil {
		return nil, 0, err
	}
	ps, err := decodePersonas(items)
	return ps, total, err
}

// Personas reads every persona of org (personas are few: tens, at most
// hundreds, ≤ 20 KB each).
func (s *Store) Personas(ctx context.Context, orgID string) ([]audience.Persona, error) {
	items, err := s.queryPrefix(ctx, orgPK(orgID), icpPrefix, true)
	if err != nil {
		return nil, err
	}
	return decodePersonas(items)
}

// CommitNewPersona writes p with its Slim entry and counts it (putCounted).
func (s *Store) CommitNewPersona(ctx context.Context, p audience.Persona) error {
	return s.putCounted(ctx, p.OrganizationID, icpSK(p.ID), personasOf(p.OrganizationID), personaItemOf(p))
}

// CommitPersona writes p over the stored persona if its updatedAt is still
// seen (audience.ErrChanged otherwise).
func (s *Store) CommitPersona(ctx context.Context, p audience.Persona, seen time.Time) error {
	orgID := p.OrganizationID
	it, err := listedItem(personaItemOf(p), orgID, icpSK(p.ID), personasOf(orgID))
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it,
		ConditionExpression: aws.String("updatedAt = :seen"),
		// Every write of a persona marshals it, so updatedAt is stored
		// as RFC 3339 with nanoseconds.
		ExpressionAttributeValues: item{":seen": str(seen.UTC().Format(time.RFC3339Nano))},
	})
	return personaChanged(err)
}

// CommitPersonaDelete deletes persona id of org and drops the personas
// counter, in one transaction: audience.ErrNotFound when it is not there.
func (s *Store) CommitPersonaDelete(ctx context.Context, orgID, id string) error {
	err := s.transactRetrying(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: key(orgPK(orgID), icpSK(id)),
			ConditionExpression: aws.String("attribute_exists(PK)"),
		}},
		s.counterAdd(orgID, counterPersonas, -1),
	})
	return personaGone(err, id)
}

// personaGone maps a persona delete's cancellation by the persona's
// condition (its first item) to audience.ErrNotFound.
func personaGone(err error, id string) error {
	switch {
	case err == nil:
		return nil
	case reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed":
		return audience.ErrNotFound
	}
	return fmt.Errorf("delete persona %s: %w", id, err)
}

// personaChanged maps a persona's failed condition to audience.ErrChanged.
func personaChanged(err error) error {
	if isConditionFailed(err) {
		return audience.ErrChanged
	}
	return err
}
