/**
 * A column header read only by screen readers. The positioned wrapper keeps the
 * absolutely positioned sr-only text inside the table's scroll box; without it the
 * text sits at the table's far right and widens the whole page on a phone.
 */
export function ActionsHeader() {
  return (
    <span className="relative">
      <span className="sr-only">Actions</span>
    </span>
  );
}
