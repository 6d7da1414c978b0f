// A complete Ludus bot in Java, with no libraries: it reads the JSON lines by hand (docs/bots.md, "Languages").
// It asks for whole views, reads each message into maps and lists, and answers {"seq", "choice"}.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Main {
    /** A tiny JSON reader: objects become Maps, arrays Lists, numbers Doubles. */
    static final class Parser {
        private final String s;
        private int i;

        Parser(String s) { this.s = s; }

        private void skip() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Map<String, Object> map = new HashMap<>();
                while (true) {
                    skip();
                    if (s.charAt(i) == '}') { i++; return map; }
                    String key = string();
                    skip();
                    i++; // ':'
                    map.put(key, value());
                    skip();
                    if (s.charAt(i) == ',') i++;
                }
            }
            if (c == '[') {
                i++;
                List<Object> list = new ArrayList<>();
                while (true) {
                    skip();
                    if (s.charAt(i) == ']') { i++; return list; }
                    list.add(value());
                    skip();
                    if (s.charAt(i) == ',') i++;
                }
            }
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            return Double.parseDouble(s.substring(start, i));
        }

        private String string() {
            skip();
            i++; // the opening quote
            StringBuilder out = new StringBuilder();
            while (s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c != '\\') { out.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u': out.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: out.append(e);
                }
            }
            i++;
            return out.toString();
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : new HashMap<>();
    }

    static long number(Object value) {
        return value instanceof Double ? ((Double) value).longValue() : 0;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long state = 0;
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> message = object(new Parser(line).value());
            Object type = message.get("type");
            if ("hello".equals(type)) {
                state = 7 + number(message.get("seat"));
                if (number(message.get("protocol")) >= 2) {
                    System.out.println("{\"type\":\"hello\",\"views\":\"full\"}");
                    System.out.flush();
                }
            } else if ("decide".equals(type)) {
                // Any index of decision.options is legal; a real bot weighs them with message.get("view").
                state = (state * 1103515245L + 12345L) % 2147483648L;
                List<?> options = (List<?>) object(message.get("decision")).get("options");
                long choice = state % Math.max(1, options.size());
                System.out.println("{\"seq\":" + number(message.get("seq")) + ",\"choice\":" + choice + "}");
                System.out.flush();
            } else if ("result".equals(type)) {
                break;
            }
        }
    }
}
