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

// The audience slice's storage of audiences: load and commit
// (shared/audience decides). The build's commits are in
// audiences_build.go, the members in audience_members.go, the copies into
// contact lists in audience_copy.go.

// audienceItem is an audience (AUDIENCE#<id> under the organization,
// listed in the Slim index and counted; in the due index while it
// builds), with the bookkeeping of its build; without the bookkeeping it
// is also the data of an audience.ready or audience.failed message.
type audienceItem struct {
	AudienceID     string           `json:"audienceId"`
	OrganizationID string           `json:"organizationId"`
	CreatedBy      string           `json:"createdBy"`
	Name           string           `json:"name"`
	ICPID          string           `json:"icpId"`
	TotalMatch     int64            `json:"totalMatch"`
	CreditRequired int64            `json:"creditRequired"`
	Status         string           `json:"status"`
	Tags           []string         `json:"tags"`
	CreatedAt      time.Time        `json:"createdAt"`
	UpdatedAt      time.Time        `json:"updatedAt"`
	Description    string           `json:"description"`
	Metadata       audienceMetaItem `json:"metadata"`
	Cursor         string           `json:"buildCursor,omitempty"`
	Failures       int              `json:"buildFailures,omitempty"`
	Clearing       bool             `json:"buildClearing,omitempty"`
}

type audienceMetaItem struct {
	CreditsPerContact int64                       `json:"creditsPerContact"`
	PricedBy          string                      `json:"pricedBy"`
	GiftID            string                      `json:"giftId,omitempty"`
	ContactsScanned   int64                       `json:"contactsScanned"`
	BuildStartedAt    time.Time                   `json:"buildStartedAt"`
	BuildFinishedAt   *time.Time                  `json:"buildFinishedAt,omitempty"`
	Error             string                      `json:"error,omitempty"`
	ContactLists      map[string]listProgressItem `json:"contactLists"`
}

// listProgressItem is the progress of a copy into a contact list
// (metadata.contactLists.<listId>).
type listProgressItem struct {
	Status    string `json:"status"`
	Added     int64  `json:"added"`
	Unchanged int64  `json:"unchanged"`
	Failed    int64  `json:"failed"`
	Cursor    string `json:"cursor,omitempty"`
	Failures  int    `json:"failures,omitempty"`
}

// audienceItemOf is a's item, without the bookkeeping of a build.
func audienceItemOf(a audience.Audience) audienceItem {
	m := a.Meta
	var lists map[string]listProgressItem
	if m.ContactLists != nil {
		lists = make(map[string]listProgressItem, len(m.ContactLists))
		for id, p := range m.ContactLists {
			lists[id] = listProgressItem(p)
		}
	}
	return audienceItem{
		AudienceID: a.ID, OrganizationID: a.OrganizationID, CreatedBy: a.CreatedBy, Name: a.Name, ICPID: a.ICPID,
		TotalMatch: a.TotalMatch, CreditRequired: a.CreditRequired, Status: string(a.Status), Tags: a.Tags,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, Description: a.Description,
		Metadata: audienceMetaItem{CreditsPerContact: m.CreditsPerContact, PricedBy: m.PricedBy, GiftID: m.GiftID,
			ContactsScanned: m.ContactsScanned, BuildStartedAt: m.BuildStartedAt, BuildFinishedAt: m.BuildFinishedAt,
			Error: m.Error, ContactLists: lists},
	}
}

func (it audienceItem) audience() audience.Audience {
	m := it.Metadata
	var lists map[string]audience.ListProgress
	if m.ContactLists != nil {
		lists = make(map[string]audience.ListProgress, len(m.ContactLists))
		for id, p := range m.ContactLists {
			lists[id] = audience.ListProgress(p)
		}
	}
	return audience.Audience{
		ID: it.AudienceID, OrganizationID: it.OrganizationID, CreatedBy: it.CreatedBy, Name: it.Name, ICPID: it.ICPID,
		TotalMatch: it.TotalMatch, CreditRequired: it.CreditRequired, Status: audience.Status(it.Status), Tags: it.Tags,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, Description: it.Description,
		Meta: audience.Meta{CreditsPerContact: m.CreditsPerContact, PricedBy: m.PricedBy, GiftID: m.GiftID,
			ContactsScanned: m.ContactsScanned, BuildStartedAt: m.BuildStartedAt, BuildFinishedAt: m.BuildFinishedAt,
			Error: m.Error, ContactLists: lists},
	}
}

// decodeAudience is the audience of a stored item, normalized.
func decodeAudience(it item) (audience.Audience, error) {
	var a audienceItem
	if err := unmarshal(it, &a); err != nil {
		return audience.Audience{}, err
	}
	out := a.audience()
	out.Normalize()
	return out, nil
}

// decodeAudiences maps stored items to audiences.
func decodeAudiences(items []item) ([]audience.Audience, error) {
	its, err := decodeAll[audienceItem](items)
	return convertAll(its, audienceItem.audience), err
}

// Audience reads audience id of org as stored, strongly consistent, or
// audience.ErrNotFound.
func (s *Store) Audience(ctx context.Context, orgID, id string) (audience.State, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), audienceSK(id)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return audience.State{}, fmt.Errorf("get audience %s: %w", id, err)
	}
	if out.Item == nil {
		return audience.State{}, audience.ErrNotFound
	}
	var it audienceItem
	if err := unmarshal(out.Item, &it); err != nil {
		return audience.State{}, err
	}
	a := it.audience()
	a.Normalize()
	return audience.State{
		Audience: a,
		Build:    audience.Build{Cursor: it.Cursor, Failures: it.Failures, Clearing: it.Clearing, Due: out.Item["dueShard"] != nil},
		Version:  attrS(out.Item, "updatedAt"),
		Indexed:  attrS(out.Item, memberIndexAttr) == memberIndexVersion,
	}, nil
}

// AudiencePage reads a page of org's audiences in creation order, and
// their number: the counter and the Slim index, O(page) (orderedPage).
func (s *Store) AudiencePage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]audience.Audience, int, error) {
	items, total, err := s.orderedPage(ctx, orgID, audiencesOf(orgID), order, page)
	if err != nil {
		return nil, 0, err
	}
	as, err := decodeAudiences(items)
	return as, total, err
}

// Audiences reads every audience of org (audiences are few per
// organization, ~1 KB each).
func (s *Store) Audiences(ctx context.Context, orgID string) ([]audience.Audience, error) {
	items, err := s.queryPrefix(ctx, orgPK(orgID), audiencePrefix, true)
	if err != nil {
		return nil, err
	}
	return decodeAudiences(items)
}

// memberIndexAttr marks an audience all of whose members are written with
// their Order entry and member entries (memberEntries): one created or
// rebuilt since they exist (its build writes them from its first member),
// or migrated (migrateAudienceMembers). Its value is memberIndexVersion.
// An audience without it is served from its Slim partition whole
// (audience.ReadAll) for the orders and searches those entries serve.
const (
	memberIndexAttr    = "memberIndex"
	memberIndexVersion = "1"
)

// CommitNewAudience writes a with its Slim entry, counts it, and makes it
// due a lease on (buildDue): the tick builds it if the job's message is
// lost.
func (s *Store) CommitNewAudience(ctx context.Context, a audience.Audience) error {
	orgID := a.OrganizationID
	extra := buildDue(orgID, a.ID, s.Now().Add(DueLease))
	extra[memberIndexAttr] = memberIndexVersion
	return s.putCountedWith(ctx, orgID, audienceSK(a.ID), audiencesOf(orgID), audienceItemOf(a), extra)
}

// buildDue are the due attributes of audience id of org while it builds,
// due at at: the scheduler tick runs its build job (audience.JobBuild)
// when no slice has made progress for a lease. Each commit of the build
// pushes the due time on, and its end (ready or failed) takes it out of
// the due index.
func buildDue(orgID, id string, at time.Time) map[string]string {
	return dueAttrs(audience.JobBuild, id, orgPK(orgID), audienceSK(id), at)
}

// UndoNewAudience deletes audience id and drops the audiences counter, in
// one transaction conditioned on it having no match yet
// (audience.ErrChanged otherwise).
func (s *Store) UndoNewAudience(ctx context.Context, orgID, id string) error {
	err := s.transactRetrying(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: key(orgPK(orgID), audienceSK(id)),
			ConditionExpression:       aws.String("totalMatch = :zero"),
			ExpressionAttributeValues: item{":zero": num(0)},
		}},
		s.counterAdd(orgID, counterAudiences, -1),
	})
	return audienceChanged(err, "undo audience "+id)
}

// CommitAudienceEdit writes a's name, description, tags and updatedAt,
// conditioned on the audience being there (audience.ErrNotFound), and
// returns it as stored then.
func (s *Store) CommitAudienceEdit(ctx context.Context, a audience.Audience) (audience.Audience, error) {
	tags := &types.AttributeValueMemberL{Value: make([]types.AttributeValue, len(a.Tags))}
	for i, t := range a.Tags {
		tags.Value[i] = str(t)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      key(orgPK(a.OrganizationID), audienceSK(a.ID)),
		UpdateExpression:         aws.String("SET #name = :name, description = :desc, tags = :tags, updatedAt = :now"),
		ConditionExpression:      aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames: map[string]string{"#name": "name"},
		ExpressionAttributeValues: item{
			":name": str(a.Name), ":desc": str(a.Description), ":tags": tags,
			":now": str(a.UpdatedAt.Format(timeLayout)),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if err != nil {
		return audience.Audience{}, audienceGone(err)
	}
	return decodeAudience(out.Attributes)
}

// CommitAudienceDelete moves audience id of org out of the AUDIENCE# range
// (so it is not found at once), writes its tombstone as a due item of the
// purge job, and drops the audiences counter, in one transaction
// conditioned on the audience's version (audience.ErrChanged otherwise).
func (s *Store) CommitAudienceDelete(ctx context.Context, orgID, id, version string) error {
	pk, sk := orgPK(orgID), deletedAudienceSK(id)
	attrs := dueAttrs(audience.JobPurge, id, pk, sk, s.Now().Add(DueLease))
	attrs["PK"], attrs["SK"] = pk, sk
	tomb, err := withKey(struct {
		AudienceID string `json:"audienceId"`
	}{id}, attrs)
	if err != nil {
		return err
	}
	err = s.transactRetrying(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: key(pk, audienceSK(id)),
			ConditionExpression:       aws.String("updatedAt = :seen"),
			ExpressionAttributeValues: item{":seen": str(version)},
		}},
		{Put: &types.Put{TableName: &s.table, Item: tomb}},
		s.counterAdd(orgID, counterAudiences, -1),
	})
	return audienceChanged(err, "delete audience "+id)
}

// CommitRebuild writes a as a rebuild starts it (its status, totals,
// progress and updatedAt; its build's cursor, end and error cleared,
// clearing, due a lease on), conditioned on the audience's version
// (audience.ErrChanged otherwise), and returns it as stored then.
func (s *Store) CommitRebuild(ctx context.Context, a audience.Audience, version string) (audience.Audience, error) {
	now := a.UpdatedAt.Format(timeLayout)
	due := buildDue(a.OrganizationID, a.ID, s.Now().Add(DueLease))
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table,
		Key:       key(orgPK(a.OrganizationID), audienceSK(a.ID)),
		UpdateExpression: aws.String("SET #st = :building, buildClearing = :true, totalMatch = :total, creditRequired = :credits, " +
			"buildFailures = :zero, updatedAt = :now, metadata.contactsScanned = :scanned, metadata.buildStartedAt = :started, " +
			"dueShard = :dueShard, dueAt = :dueAt, dueKind = :dueKind, dueRef = :dueRef, " + memberIndexAttr + " = :mix " +
			"REMOVE buildCursor, metadata.buildFinishedAt, metadata.#err"),
		ConditionExpression:      aws.String("updatedAt = :seen"),
		ExpressionAttributeNames: map[string]string{"#st": "status", "#err": "error"},
		ExpressionAttributeValues: item{
			":building": str(string(a.Status)), ":true": &types.AttributeValueMemberBOOL{Value: true},
			":total": num(a.TotalMatch), ":credits": num(a.CreditRequired), ":scanned": num(a.Meta.ContactsScanned),
			":zero": num(0), ":now": str(now), ":started": str(a.Meta.BuildStartedAt.Format(timeLayout)), ":seen": str(version),
			":mix": str(memberIndexVersion), ":dueShard": str(due["dueShard"]), ":dueAt": str(due["dueAt"]), ":dueKind": str(due["dueKind"]), ":dueRef": str(due["dueRef"]),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if err != nil {
		return audience.Audience{}, audienceChanged(err, "rebuild audience "+a.ID)
	}
	return decodeAudience(out.Attributes)
}

// audienceChanged maps an audience's failed condition (the first item of
// a transaction, or an update's) to audience.ErrChanged.
func audienceChanged(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case isConditionFailed(err) || reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed":
		return audience.ErrChanged
	}
	return fmt.Errorf("%s: %w", what, err)
}

// audienceGone maps an edit's failed condition (the audience is not
// there) to audience.ErrNotFound.
func audienceGone(err error) error {
	if isConditionFailed(err) {
		return audience.ErrNotFound
	}
	return err
}
