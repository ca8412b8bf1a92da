/**
 * The queue dialog's preset colours (spec 003 §9: "about 49"), seven by seven: each column a hue,
 * in Material's 400, 600 and 800 shades (two bands of seven hues), and a last row of oranges and
 * neutrals. Every colour of the tags' palette (`PALETTE`) is here too.
 */
export const QUEUE_PALETTE = [
  '#ef5350', '#ec407a', '#ab47bc', '#7e57c2', '#5c6bc0', '#42a5f5', '#29b6f6',
  '#e53935', '#d81b60', '#8e24aa', '#5e35b1', '#3949ab', '#1e88e5', '#039be5',
  '#c62828', '#ad1457', '#6a1b9a', '#4527a0', '#283593', '#1565c0', '#0277bd',
  '#26c6da', '#26a69a', '#66bb6a', '#9ccc65', '#d4e157', '#ffee58', '#ffca28',
  '#00acc1', '#00897b', '#43a047', '#7cb342', '#c0ca33', '#fdd835', '#ffb300',
  '#00838f', '#00695c', '#2e7d32', '#558b2f', '#9e9d24', '#f9a825', '#ff8f00',
  '#ffa726', '#fb8c00', '#f4511e', '#6d4c41', '#757575', '#546e7a', '#000000',
] as const;
