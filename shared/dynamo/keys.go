package dynamo

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// The table's keys. Every tenant item lives in the partition of its
// organization, so no request can name another organization's item: the
// organization comes from the API key, never from input. The only global
// items are the API-key hashes, read before the organization is known.
//
// Access patterns (pattern → key condition → index):
//
//	API key → org                  PK=KEY#<sha256>, SK=KEY                       table
//	org profile / wallet            PK=ORG#<org>, SK=PROFILE | WALLET            table
//	ledger, newest first            PK=ORG#<org>, SK begins_with LEDGER#         table
//	collection counters             PK=ORG#<org>, SK=COUNT#<name>                table
//	gift / template by id           PK=ORG#<org>, SK=GIFT#<id> | TEMPLATE#<id>   table (own, then catalog org)
//	gifts / templates of an org     PK=ORG#<org>, SK begins_with GIFT# | TEMPLATE# table
//	contact by id                   PK=ORG#<org>, SK=CONTACT#<id>                table
//	contact by email (uniqueness)   PK=ORG#<org>, SK=CONTACT#<slotID(org, email)> table (the email's slot: holder)
//	  legacy email marker           PK=ORG#<org>, SK=EMAIL#<lower-case email>    table (read beside the slot; found until `admin migrate` ran)
//	contacts page, by first list    LPK=ORG#<org>#CONTACT, LSK=<first list|->#<creation key> Slim (keys + srch), then items by key
//	  then newest contact first; members of list L whose first list is L: LSK begins_with <L>#
//	contacts search                 LPK=ORG#<org>#CONTACT, filter on srch        Slim
//	soft-deleted contact            PK=ORG#<org>, SK=DELCONTACT#<id>             table
//	contact list by id / all lists  PK=ORG#<org>, SK=LIST#<id> | begins_with LIST# table
//	members of a list               the Slim range <list>#, then                 Slim + table (listMemberPage)
//	  second and later lists        PK=ORG#<org>, SK begins_with MEMBER#<list>#  table
//	migration progress              PK=ORG#<org>, SK=MIGRATE#<step>               table
//	operator top-up by request id   PK=ORG#<org>, SK=TOPUP#<request id>          table (kept: a re-run is a no-op)
//	campaign by id / all campaigns  PK=ORG#<org>, SK=CAMPAIGN#<id> | begins_with   table
//	campaigns skip (deep pages)     LPK=ORG#<org>#CAMPAIGN, LSK=CAMPAIGN#<id>     Slim (keys only used)
//	soft-deleted campaign           PK=ORG#<org>, SK=DELCAMPAIGN#<id>             table
//	campaigns referring to a template, gift or list: both ranges above, all items     table
//	deleted list, memberships going PK=ORG#<org>, SK=DELLIST#<id> (due item)      table
//	launch record of a campaign     PK=ORG#<org>, SK=LAUNCH#<campaign>            table
//	recipients of a campaign        PK=ORG#<org>, SK begins_with RCPT#<campaign>#  table
//	email set (recipients' emails)  PK=ORG#<org>, SK=EMAILS#<emailSetID>          table (immutable; cached per process)
//	recipient of a contact (dedup)  PK=ORG#<org>, SK=RCPT#<campaign>#<recipientIDFor(campaign, contact)> table
//	recipients skip/filter/search   LPK=ORG#<org>#RCPT#<campaign>, LSK=RCPT#<campaign>#<ULID of createdAt> Slim (SK projected)
//	legacy dedup marker (read only) PK=ORG#<org>, SK=RCPTOF#<campaign>#<contact>  table
//	launch tombstone (contact gone) PK=ORG#<org>, SK=RCPT#<campaign>#<recipientIDFor(…)>, gone  table (TTL expiresAt)
//	idempotency record              PK=ORG#<org>, SK=IDEM#<scope>#<key>          table (TTL expiresAt)
//	ICP persona / audience list     PK=ORG#<org>, SK=ICP#<id> | AUDIENCE#<id>    table
//	personas / audiences / events   PK=ORG#<org>, SK begins_with ICP# | AUDIENCE# | EVENT# table
//	  skip (deep pages)             LPK=ORG#<org>#ICP | #AUDIENCE | #EVENT        Slim (keys only used)
//	deleted audience (purge)        PK=ORG#<org>, SK=DELAUDIENCE#<id>            table (due in Due until purged)
//	audience copy into a list       PK=ORG#<org>, SK=AUDCOPY#<aud>#<list>        table (due in Due until filled)
//	ended campaign's expiry         PK=ORG#<org>, SK=EXPIRY#<campaign>           table (due in Due until every recipient walked)
//	soft-deleted event              PK=ORG#<org>, SK=DELEVENT#<id>               table
//	audience members                PK=ORG#<org>, SK begins_with AMEMBER#<aud>#  table
//	audience members by createdAt   LPK=ORG#<org>#AUD#<aud>, LSK=CRT#<contact createdAt>#<contact> Slim (AMEMBER#… before)
//	event by id                     PK=ORG#<org>, SK=EVENT#<id>                  table
//	due items (scheduler tick)      dueShard=DUE#<shard>, dueAt <= <now>         Due (sparse, INCLUDE)
//	request counter (rate limit)    PK=ORG#<org>, SK=RATE#<class>#<window start> table (TTL expiresAt)
//	recipient by page id            pg=<first 20 chars of the page id>           Pages (keys only)
//	suppressed address              PK=ORG#<org>, SK=SUPPRESS#<sha256 of lower-case email> table
//	recipient's next email due      dueShard=DUE#<shard>, dueAt=<time>#…         Due (on the recipient item)
//	draft's scheduled launch due    dueShard=DUE#<shard>, dueAt=<scheduledAt>#…  Due (on the campaign item)
//	sent message → org/recipient    PK=MSG#<SES message id>, SK=MSG              table (global, TTL expiresAt)
//	change feed, in id order        PK=ORG#<org>#CHG, SK=<ULID>                  table (TTL expiresAt)
//	  a balance change's messages   PK=ORG#<org>, SK=LEDGER#<ULID> (rec, msgs)   table (merged by id with the above)
//	webhook endpoint / all of them  PK=ORG#<org>, SK=WEBHOOK#<id> | begins_with   table
//	delivery of a message           PK=ORG#<org>, SK=WHMSG#<webhook>#<message>    table (due index while pending; then an "ended" marker to TTL)
//	deliveries log, newest first    PK=ORG#<org>, SK begins_with WHLOG#<webhook>#  table (TTL expiresAt)
//
// The message item is global, like the API-key hash: SES's bounce and
// complaint events name only the message id, before the organization is
// known.
//
// The due index (Due; it replaced GSI1, whose ALL projection copied every
// waiting recipient whole) is sparse: an item (a launch record, a
// recipient with an email waiting) carries dueShard and dueAt only while
// work on it is outstanding, so a tick with nothing due
// reads one empty page per shard. See due.go.
//
// Key builders are the only place these strings are spelled.

func orgPK(org string) string         { return "ORG#" + org }
func messagePK(id string) string      { return "MSG#" + id }
func apiKeyPK(hash string) string     { return "KEY#" + hash }
func apiKeyRefSK(keyID string) string { return "APIKEY#" + keyID }
func ledgerSK(entryID string) string  { return "LEDGER#" + entryID }
func counterSK(name string) string    { return "COUNT#" + name }
func giftSK(id string) string         { return "GIFT#" + id }
func templateSK(id string) string     { return "TEMPLATE#" + id }
func contactSK(id string) string      { return "CONTACT#" + id }
func emailSK(email string) string     { return "EMAIL#" + email }
func migrateSK(step string) string    { return "MIGRATE#" + step }
func topUpSK(requestID string) string { return "TOPUP#" + requestID }
func emailSetSK(id string) string     { return "EMAILS#" + id }

// slotID is the id of the contact item that is the slot of email in org:
// 26 lower-case base32 characters of a SHA-256 of the two, so it never
// equals a ULID (upper case) and passes gifting.ValidID. The item at
// CONTACT#<slotID> names in holder the contact that has the email; a new
// contact for a free email is created right there, so one conditional
// put both creates it and claims its email.
func slotID(org, email string) string {
	return digestID([]byte("contact\x00" + org + "\x00" + email))
}

// digestID is a content-derived id: 26 lower-case base32 characters (130
// bits) of a SHA-256 of b. Lower case keeps it apart from ULIDs.
func digestID(b []byte) string {
	sum := sha256.Sum256(b)
	return strings.ToLower(base32.StdEncoding.EncodeToString(sum[:]))[:26]
}

// isSlotID reports whether a contact id is a slot id (lower case) rather
// than a ULID (upper case).
func isSlotID(id string) bool { return id != "" && strings.ToLower(id) == id }

// contactLSK is a contact's Slim sort key: its first list ("-" for none),
// then its creation-ordered key (newContactOrd), so the members whose
// first list is L are one range of the contacts' Slim partition, newest
// first.
func contactLSK(firstList, ord string) string {
	if firstList == "" {
		firstList = noList
	}
	return firstList + "#" + ord
}

// noList starts the Slim sort key of a contact in no list; it sorts before
// every ULID, so these contacts come last in the descending contacts page.
const noList = "-"

func listSK(id string) string { return "LIST#" + id }
func memberSK(list, contact string) string {
	return "MEMBER#" + list + "#" + contact
}
func campaignSK(id string) string                   { return "CAMPAIGN#" + id }
func recipientSK(campaign, recipient string) string { return "RCPT#" + campaign + "#" + recipient }

// recipientOfSK is the marker that made a contact a recipient of a
// campaign at most once before recipient ids were derived from the
// contact (recipientIDFor). Recipients written then keep their random ids
// and their markers; new code reads the marker, never writes it.
func recipientOfSK(campaign, contact string) string {
	return "RCPTOF#" + campaign + "#" + contact
}

// recipientIDFor is the id of the recipient that contact becomes in
// campaign: derived from both, so the recipient's key is the uniqueness of
// a contact in a campaign (a second put of it fails its condition) and no
// marker item is needed. It has the shape of a ULID (26 characters of
// Crockford base 32), but its time part carries no meaning: the recipient's
// place in creation order is its Slim sort key (recipientLSK).
func recipientIDFor(campaign, contact string) string {
	sum := sha256.Sum256([]byte(campaign + "\x00" + contact))
	var id ulid.ULID
	copy(id[:], sum[:16])
	return id.String()
}

// recipientLSK is the Slim sort key of recipient id of campaign, created
// at created: a ULID of that time (its random part derived from the id, so
// every write of the recipient computes the same key), so the campaign's
// Slim partition lists its recipients in creation order whatever their
// ids.
func recipientLSK(campaign, id string, created time.Time) string {
	sum := sha256.Sum256([]byte(id))
	var u ulid.ULID
	_ = u.SetTime(ulid.Timestamp(created)) // fails only past the year 10889
	_ = u.SetEntropy(sum[:10])             // exactly 10 bytes: never fails
	return "RCPT#" + campaign + "#" + u.String()
}
func idempotencySK(scope, k string) string { return "IDEM#" + scope + "#" + k }
func icpSK(id string) string               { return "ICP#" + id }
func rateSK(class string, window int64) string {
	return "RATE#" + class + "#" + strconv.FormatInt(window, 10)
}
func audienceSK(id string) string { return "AUDIENCE#" + id }
func audienceMemberSK(aud, contact string) string {
	return "AMEMBER#" + aud + "#" + contact
}

// audienceMemberLSK is an audience member's Slim sort key: the contact's
// createdAt (UTC, fixed width, so it sorts as a string) and then its id, so
// the audience's Slim partition is in the default (createdAt) order. A
// member written before this key has LSK = audienceMemberSK (see
// legacyMembers); "CRT#" sorts after that "AMEMBER#".
func audienceMemberLSK(createdAt time.Time, contact string) string {
	return "CRT#" + createdAt.UTC().Format(timeLayout) + "#" + contact
}

func eventSK(id string) string { return "EVENT#" + id }

// pageKey is the Pages index key of a recipient: the prefix its landing
// and claim page ids share (see newPageIDs).
func pageKey(pageID string) string { return pageID[:pageKeyLength] }

// suppressionSK is an address the organization never mails again. The key
// holds a hash of the lower-cased address, not the address, so a key that
// reaches a log or an error carries no personal data.
func suppressionSK(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return "SUPPRESS#" + hex.EncodeToString(sum[:])
}

// deletedContactSK is where a soft-deleted contact is kept: outside the
// CONTACT# range and without Slim keys, so pages and searches never see it.
func deletedContactSK(id string) string { return "DELCONTACT#" + id }

// memberPrefix is the sort-key prefix of the members of a list.
func memberPrefix(list string) string { return "MEMBER#" + list + "#" }

// audienceMemberPrefix is the sort-key prefix of the members of an
// audience list.
func audienceMemberPrefix(aud string) string { return "AMEMBER#" + aud + "#" }

// Slim index partitions: one per large collection.
func contactsLPK(org string) string { return orgPK(org) + "#CONTACT" }
func recipientsLPK(org, campaign string) string {
	return orgPK(org) + "#RCPT#" + campaign
}
func audienceLPK(org, aud string) string { return orgPK(org) + "#AUD#" + aud }
func campaignsLPK(org string) string     { return orgPK(org) + "#CAMPAIGN" }
func personasLPK(org string) string      { return orgPK(org) + "#ICP" }
func audiencesLPK(org string) string     { return orgPK(org) + "#AUDIENCE" }
func eventsLPK(org string) string        { return orgPK(org) + "#EVENT" }

// deletedAudienceSK is the tombstone of a deleted audience while its
// members are purged: outside the AUDIENCE# range, so the audience is gone
// at once; it is a due item until the purge ends, then removed.
func deletedAudienceSK(id string) string { return "DELAUDIENCE#" + id }

// audienceCopySK is the due item of the copy of audience aud into contact
// list list while the list is filled (copyDue).
func audienceCopySK(aud, list string) string { return "AUDCOPY#" + aud + "#" + list }

// campaignExpirySK is the due item of the expiry of a completed or
// deleted campaign's unclaimed recipients (expiryDue) until its job has
// walked them all.
func campaignExpirySK(campaign string) string { return "EXPIRY#" + campaign }

// deletedEventSK is where a soft-deleted event is kept: outside the EVENT#
// range and without Slim keys, so lists never see it.
func deletedEventSK(id string) string { return "DELEVENT#" + id }

// deletedCampaignSK is where a soft-deleted campaign is kept: outside the
// CAMPAIGN# range and without Slim keys, so campaign pages never see it.
func deletedCampaignSK(id string) string { return deletedCampaignPrefix + id }

// deletedListSK is the tombstone of a deleted contact list while its
// memberships are removed (a due item of the job that removes them); the
// job deletes it when the last membership is gone.
func deletedListSK(id string) string { return "DELLIST#" + id }

// launchSK is the record of a campaign's launch: what was paid, how far the
// launch job got.
func launchSK(campaign string) string { return "LAUNCH#" + campaign }

// Fixed sort keys.
const (
	apiKeySK  = "KEY"
	profileSK = "PROFILE"
	walletSK  = "WALLET"
)

// Sort-key prefixes of collections.
const (
	ledgerPrefix   = "LEDGER#"
	giftPrefix     = "GIFT#"
	templatePrefix = "TEMPLATE#"
	contactPrefix  = "CONTACT#"
	listPrefix     = "LIST#"
	campaignPrefix = "CAMPAIGN#"
	icpPrefix      = "ICP#"
	audiencePrefix = "AUDIENCE#"
	eventPrefix    = "EVENT#"
	// deletedCampaignPrefix starts every soft-deleted campaign's key.
	deletedCampaignPrefix = "DELCAMPAIGN#"
	// recipientPrefix starts every recipient's sort key (RCPT#<campaign>#<id>).
	recipientPrefix = "RCPT#"
)

// messageSK is the sort key of a sent message's item.
const messageSK = "MSG"

// Index names, as in template.yaml.
const (
	// indexDue is sparse: only items with outstanding work carry its keys,
	// dueShard and dueAt; it projects the few attributes the tick reads.
	indexDue  = "Due"
	indexSlim = "Slim"
	// indexPages is sparse: only recipients carry its key, pg.
	indexPages = "Pages"
)

// dueShards is the number of partitions of the due index. Items spread
// over them by a hash of their key, so no single index partition takes all
// the scheduler's writes; an idle tick reads each once.
const dueShards = 4

// dueTimeLayout is the fixed-width UTC time that starts a due sort key, so
// sort keys order by due time.
const dueTimeLayout = "2006-01-02T15:04:05.000Z"

// dueShardPK is the due-index partition of shard.
func dueShardPK(shard int) string { return "DUE#" + strconv.Itoa(shard) }

// dueShardOf is the due-index shard of the item pk/sk: fixed for the item,
// so moving its due time never moves it to another partition.
func dueShardOf(pk, sk string) int {
	h := fnv.New32a()
	h.Write([]byte(pk + "\x00" + sk))
	return int(h.Sum32() % dueShards)
}

// dueSK is the due-index sort key of the item pk/sk due at at: the time,
// then 13 characters of a hash of the item's key, so items due at the same
// millisecond still have keys of their own without spelling out the
// item's key (written on every item that is due, and copied into its index
// entry). Items written before carry "<time>#<pk>#<sk>"; the time is read
// from the front of both (DueItems).
func dueSK(at time.Time, pk, sk string) string {
	h := fnv.New64a()
	h.Write([]byte(pk + "\x00" + sk))
	return at.UTC().Format(dueTimeLayout) + "#" + strconv.FormatUint(h.Sum64(), 32)
}

// dueUpTo is the upper bound of the due sort keys of items due at or
// before at ("~" sorts after the "#" that follows the time).
func dueUpTo(at time.Time) string { return at.UTC().Format(dueTimeLayout) + "~" }

// changesPK is the partition of an organization's change records: apart
// from the organization's own, so the feed's Query reads nothing else.
func changesPK(org string) string { return orgPK(org) + changesSuffix }

// changesSuffix ends the partition key of an organization's change records.
const changesSuffix = "#CHG"

// Webhook endpoints, the delivery of one message to one endpoint, and the
// log of attempts, per endpoint.
func webhookSK(id string) string { return webhookPrefix + id }
func webhookDeliverySK(webhook, msg string) string {
	return "WHMSG#" + webhook + "#" + msg
}
func webhookLogPrefix(webhook string) string      { return "WHLOG#" + webhook + "#" }
func webhookLogSK(webhook, attempt string) string { return webhookLogPrefix(webhook) + attempt }

// webhookPrefix starts every endpoint's sort key.
const webhookPrefix = "WEBHOOK#"

// orgOfPK is the organization of a tenant partition key.
func orgOfPK(pk string) string { return strings.TrimPrefix(pk, "ORG#") }
