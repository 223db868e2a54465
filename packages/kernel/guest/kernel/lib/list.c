/* Doubly linked list operations (kernel/types.h). Out of line so they are
 * traceable and their callers stay small. */
#include <kernel/types.h>

void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static void list_insert_between(struct list_head *entry, struct list_head *prev,
				struct list_head *next)
{
	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	prev->next = entry;
}

void list_add(struct list_head *entry, struct list_head *head)
{
	list_insert_between(entry, head, head->next);
}

void list_add_tail(struct list_head *entry, struct list_head *head)
{
	list_insert_between(entry, head->prev, head);
}

void list_del(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	entry->next = entry;
	entry->prev = entry;
}

bool list_empty(const struct list_head *head)
{
	return head->next == head;
}
