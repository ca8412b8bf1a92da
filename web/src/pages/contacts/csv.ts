/**
 * Saves `text` as a file called `name`. CSV texts come from @balcao/shared's writeCsv, which already
 * starts them with the UTF-8 byte-order mark spreadsheet programs need to read accents.
 */
export function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
