import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import './emoji-picker.css';

/*
 * A self-contained picker: the common emoji of each group, rendered by the system font. It works
 * offline and needs no data download (the console runs where only our own origin is reachable).
 * Spread with Array.from so multi-code-point emoji (❤️, 👍🏽) stay whole.
 */
const GROUPS = {
  smileys:
    '😀 😃 😄 😁 😆 😅 🤣 😂 🙂 🙃 😉 😊 😇 🥰 😍 🤩 😘 😗 😚 😙 😋 😛 😜 🤪 😝 🤑 🤗 🤭 🤫 🤔 🤐 🤨 😐 😑 😶 😏 😒 🙄 😬 😌 😔 😪 🤤 😴 😷 🤒 🤕 🤢 🤮 🥵 🥶 🥴 😵 🤯 🤠 🥳 😎 🤓 🧐 😕 😟 🙁 😮 😯 😲 😳 🥺 😦 😧 😨 😰 😥 😢 😭 😱 😖 😣 😞 😓 😩 😫 🥱 😤 😡 😠 🤬 😈 👿 💀 💩 🤡 👻 👽 🤖',
  gestures:
    '👋 🤚 🖐️ ✋ 🖖 👌 🤌 🤏 ✌️ 🤞 🤟 🤘 🤙 👈 👉 👆 👇 ☝️ 👍 👎 ✊ 👊 🤛 🤜 👏 🙌 👐 🤲 🤝 🙏 ✍️ 💪 👀 👂 👃 🧠 👶 🧒 👦 👧 🧑 👨 👩 🧓 👴 👵 🙋 🙆 🙅 🤷 🤦 🙇 💁 🧑‍💻 👨‍💼 👩‍💼 🧑‍🔧 🧑‍🍳 🚶 🏃 💃 🕺',
  hearts: '❤️ 🧡 💛 💚 💙 💜 🤎 🖤 🤍 💔 ❣️ 💕 💞 💓 💗 💖 💘 💝 💟 ♥️ 😻 💋 💌 🌹',
  nature:
    '🐶 🐱 🐭 🐹 🐰 🦊 🐻 🐼 🐨 🐯 🦁 🐮 🐷 🐸 🐵 🐔 🐧 🐦 🐤 🦆 🦅 🦉 🐴 🦄 🐝 🦋 🐌 🐞 🐢 🐍 🐙 🐠 🐬 🐳 🌵 🌲 🌳 🌴 🌱 🌿 🍀 🍁 🍂 🌷 🌸 🌼 🌻 🌞 🌝 🌙 ⭐ 🌟 ✨ ⚡ 🔥 🌈 ☀️ ⛅ ☁️ 🌧️ ⛈️ ❄️ ☃️ 💧 🌊',
  food:
    '🍏 🍎 🍐 🍊 🍋 🍌 🍉 🍇 🍓 🍒 🍑 🥭 🍍 🥥 🥝 🍅 🥑 🥦 🥕 🌽 🌶️ 🥔 🍞 🧀 🥚 🍳 🥓 🍗 🍖 🌭 🍔 🍟 🍕 🥪 🌮 🌯 🥗 🍝 🍜 🍣 🍱 🍰 🎂 🧁 🍩 🍪 🍫 🍬 🍭 🍿 ☕ 🍵 🧃 🥤 🍺 🍻 🥂 🍷 🍹',
  objects:
    '⌚ 📱 💻 ⌨️ 🖥️ 🖨️ 📷 📹 🎥 📞 ☎️ 📺 📻 ⏰ ⌛ 💡 🔦 💵 💰 💳 🧾 💎 🔧 🔨 🛠️ 🔑 🗝️ 🚪 🛒 🎁 🎈 🎉 🎊 📦 📫 📬 ✉️ 📧 📝 📄 📅 📆 📌 📍 📎 ✂️ 🔒 🔓 🏠 🏢 🏥 🏦 🚗 🚕 🚚 🚲 ✈️ 🚀 ⚽ 🏀 🎮 🎵 🎶',
  symbols:
    '✅ ☑️ ✔️ ❌ ❎ ➕ ➖ ➗ ✖️ ❓ ❔ ❗ ❕ ‼️ ⁉️ 💯 🔴 🟠 🟡 🟢 🔵 🟣 ⚫ ⚪ 🔶 🔷 ⬆️ ⬇️ ⬅️ ➡️ ↩️ ↪️ 🔄 🔁 ▶️ ⏸️ ⏹️ ⏺️ 🔔 🔕 📢 💬 💭 🆗 🆕 🆓 🔝 ℹ️ ⚠️ 🚫 ⛔ ♻️ 💲 ©️ ®️ ™️ #️⃣ 1️⃣ 2️⃣ 3️⃣',
} as const;

type Group = keyof typeof GROUPS;
const list = (g: Group) => GROUPS[g].split(' ').filter(Boolean);

export default function EmojiPicker({ onPick }: { onPick: (emoji: string) => void }) {
  const { t } = useTranslation();
  const [group, setGroup] = useState<Group>('smileys');
  return (
    <div className="emoji-picker" role="dialog" aria-label={t('composer.emoji')} data-testid="emoji-picker">
      <div className="emoji-tabs" role="tablist">
        {(Object.keys(GROUPS) as Group[]).map((g) => (
          <button key={g} type="button" role="tab" aria-selected={g === group} className={g === group ? 'on' : ''} onClick={() => setGroup(g)} title={t(`composer.emojiGroups.${g}`)}>
            {list(g)[0]}
          </button>
        ))}
      </div>
      <div className="emoji-grid" aria-label={t(`composer.emojiGroups.${group}`)}>
        {list(group).map((e) => (
          <button key={e} type="button" className="emoji-cell" onClick={() => onPick(e)} aria-label={e}>
            {e}
          </button>
        ))}
      </div>
    </div>
  );
}
